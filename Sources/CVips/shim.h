#ifndef DIARY_CVIPS_SHIM_H
#define DIARY_CVIPS_SHIM_H

// libvips' C API is mostly variadic (name, value, ..., NULL option lists), which Swift cannot
// call: these non-variadic wrappers fix the options Diary uses. Everything non-variadic
// (vips_init, vips_operation_block_set, vips_image_get_width, g_object_unref, g_free,
// vips_error_buffer) is called from Swift directly.
#include <stddef.h>
#include <vips/vips.h>

static inline void diary_vips_ignore_log(const gchar *domain, GLogLevelFlags level, const gchar *message, gpointer data) {
    (void)domain; (void)level; (void)message; (void)data;
}

// libvips logs a warning on stderr for every damaged tile of a hostile upload; the refusal
// reaches the caller as an error already, so the warnings are dropped.
static inline void diary_vips_silence_warnings(void) {
    g_log_set_handler("VIPS", G_LOG_LEVEL_WARNING, diary_vips_ignore_log, NULL);
}

// The header alone: libvips reads width, height and the loader's name without decoding a pixel.
static inline VipsImage *diary_vips_header_from_buffer(const void *buffer, size_t length) {
    return vips_image_new_from_buffer(buffer, length, "", NULL);
}

// Decodes with shrink-on-load, turns upright by the EXIF orientation and scales down (never up)
// so that the longer side is at most `max_side`. `fail_on=error` makes a truncated or corrupt
// file an error instead of an image with a grey bottom. The result is lazy: `buffer` must stay
// valid until the image is saved and released.
static inline int diary_vips_thumbnail_buffer(const void *buffer, size_t length, VipsImage **out, int max_side) {
    return vips_thumbnail_buffer((void *)buffer, length, out, max_side,
                                 "height", max_side,
                                 "size", VIPS_SIZE_DOWN,
                                 "option_string", "fail_on=error",
                                 NULL);
}

// Whether the image still carries an ICC profile (thumbnail keeps a non-sRGB one).
static inline int diary_vips_has_icc_profile(VipsImage *image) {
    return vips_image_get_typeof(image, VIPS_META_ICC_NAME) != 0;
}

// Converts with the embedded profile to sRGB, so that stripping the profile keeps the colours.
static inline int diary_vips_embedded_profile_to_srgb(VipsImage *in, VipsImage **out) {
    return vips_icc_transform(in, out, "srgb", "embedded", TRUE, "intent", VIPS_INTENT_PERCEPTUAL, NULL);
}

// JPEG with every metadata block removed (EXIF, XMP, IPTC, ICC, comments).
static inline int diary_vips_jpeg_save_stripped(VipsImage *in, void **buffer, size_t *length, int quality) {
    return vips_jpegsave_buffer(in, buffer, length, "Q", quality, "strip", TRUE, "optimize_coding", TRUE, NULL);
}

// PNG with every metadata block removed.
static inline int diary_vips_png_save_stripped(VipsImage *in, void **buffer, size_t *length) {
    return vips_pngsave_buffer(in, buffer, length, "strip", TRUE, "compression", 6, NULL);
}

#endif

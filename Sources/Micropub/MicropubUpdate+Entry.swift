import DiaryAPI
import Foundation

extension MicropubUpdate {
    /// The update as a change to `entry`: replaced, added and deleted values of the properties
    /// an entry has (`name`, `content`, `category`, `published`, `post-status`, `visibility`).
    /// Photos live in the content once posted, so they change through `content`.
    public func patch(of entry: Entry) throws(MicropubError) -> EntryPatch {
        var patch = EntryPatch()
        var tags = entry.tags
        var tagsChanged = false
        for (name, values) in replace {
            switch name {
            case "category":
                tags = values.compactMap(\.text)
                tagsChanged = true
            default: try Self.replace(name, values, in: &patch)
            }
        }
        for (name, values) in add {
            guard name == "category" else {
                throw .invalidRequest("Only category takes added values; replace \(name.prefix(40)) instead.")
            }
            tags += values.compactMap(\.text).filter { !tags.contains($0) }
            tagsChanged = true
        }
        for name in deleteProperties {
            switch name {
            case "category": tags = []
            case "content": patch.body = ""
            default: throw .invalidRequest("\(name.prefix(40)) cannot be deleted; an entry always has it. Replace it instead.")
            }
            tagsChanged = tagsChanged || name == "category"
        }
        for (name, values) in deleteValues {
            guard name == "category" else {
                throw .invalidRequest("Only values of category can be deleted one by one.")
            }
            // Stored tags are normalised: a value is removed in its normalised form too.
            let removed = Set(values.compactMap(\.text).map { value in
                if case .success(let tag) = TagRules.tag(value) { tag } else { value }
            })
            tags.removeAll { removed.contains($0) }
            tagsChanged = true
        }
        if tagsChanged { patch.tags = tags }
        if patch == EntryPatch() {
            throw .invalidRequest("The update changes nothing: send replace, add or delete of name, content, category, published, post-status or visibility.")
        }
        return patch
    }

    private static func replace(_ name: String, _ values: [MicropubValue], in patch: inout EntryPatch) throws(MicropubError) {
        let properties = [name: values]
        switch name {
        case "name": patch.title = try MicropubPost.single(properties, name)?.text ?? ""
        case "content": patch.body = try MicropubPost.single(properties, name).map(MicropubPost.markdown) ?? ""
        case "published":
            guard let value = try MicropubPost.single(properties, name) else { throw MicropubPost.notADate }
            patch.created = try MicropubPost.published(value)
        case "post-status": patch.draft = try MicropubPost.draft(MicropubPost.single(properties, name))
        case "visibility":
            guard let visibility = try MicropubPost.visibility(MicropubPost.single(properties, name)) else {
                throw .invalidRequest("visibility needs a value.")
            }
            patch.visibility = VisibilityField(visibility)
        default:
            throw .invalidRequest("\(name.prefix(40)) cannot be replaced: this server keeps name, content, category, published, post-status and visibility.")
        }
    }
}

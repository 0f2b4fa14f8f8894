import ByteEncodings
import Crypto
import DiaryAPI
import DiaryStore
import Foundation

/// Signs and reads the paging cursors of the API: `base64url(payload).base64url(mac)`, where the
/// MAC is HMAC-SHA256 under the database's secret, cut to 16 bytes. The payload holds the
/// position and a hash of the filter and diary it was made for, so a cursor altered, forged
/// or carried to another list is refused.
struct CursorCodec: Sendable {
    let secret: [UInt8]

    init(secret: [UInt8]) {
        self.secret = secret
    }

    /// The cursor that continues a list at `position`.
    func encode(_ position: EntryPosition, filter: EntryFilter, diaryID: Int64?) -> String {
        let scope = Self.scope(filter: filter, diaryID: diaryID)
        let payload: String
        switch position {
        case .after(let created, let id): payload = "n:\(Int64(created.timeIntervalSince1970)):\(id):\(scope)"
        case .offset(let offset): payload = "o:\(offset):\(scope)"
        }
        let bytes = Array(payload.utf8)
        return Base64URL.encode(bytes) + "." + Base64URL.encode(mac(bytes))
    }

    /// The position `text` names, or nil when it is malformed, altered or made for another list.
    func decode(_ text: String, filter: EntryFilter, diaryID: Int64?) -> EntryPosition? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let payload = Base64URL.decode(parts[0]), let sent = Base64URL.decode(parts[1]),
              // Only the one canonical spelling: unused low bits of the last character must be zero.
              Base64URL.encode(payload) == parts[0], Base64URL.encode(sent) == parts[1]
        else { return nil }
        let expected = mac(payload)
        guard sent.count == expected.count else { return nil }
        var difference: UInt8 = 0
        for i in expected.indices { difference |= expected[i] ^ sent[i] }
        guard difference == 0, let string = String(validating: payload, as: UTF8.self) else { return nil }
        let fields = string.split(separator: ":", omittingEmptySubsequences: false)
        guard let scope = fields.last, scope == Self.scope(filter: filter, diaryID: diaryID) else { return nil }
        switch (fields.first, fields.count) {
        case ("n", 4):
            guard let seconds = Int64(fields[1]), let id = Int64(fields[2]) else { return nil }
            return .after(created: Date(timeIntervalSince1970: TimeInterval(seconds)), id: id)
        case ("o", 3):
            guard let offset = Int(fields[1]), offset >= 0 else { return nil }
            return .offset(offset)
        default:
            return nil
        }
    }

    private func mac(_ payload: [UInt8]) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: payload, using: SymmetricKey(data: secret)).prefix(16))
    }

    /// 16 hex digits of a hash of what the list is (filter and diary), without the cursor.
    private static func scope(filter: EntryFilter, diaryID: Int64?) -> String {
        let text = filter.fingerprint + "\u{1F}" + (diaryID.map(String.init) ?? "")
        return Hex.lowercase(SHA256.hash(data: Array(text.utf8)).prefix(8))
    }
}

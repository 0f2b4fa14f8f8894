import Foundation

/// Where a reader of `GET /api/changes` left off: a position in the public change sequence,
/// and for a token holder a position in their own. Positions come from the server, never from a
/// clock, so clock skew cannot reorder or lose a change.
///
/// Why two numbers and not one: a single sequence counting every write would move when the
/// owner of a private entry wrote, and others would see the gap in their cursors. The public
/// sequence moves only with changes the public sees (a public entry created, edited or
/// deleted; an entry made public or no longer public); a user's own sequence moves only with
/// changes to that user's entries. What anyone receives thus depends on public changes and on
/// their own, nothing else (docs/offline.md).
///
/// Written as `P` (anyone) or `P.O` (a token holder); a cursor without `.O` read with a token
/// starts the token holder's own sequence from the beginning, and `.O` is ignored without one.
public struct ChangeCursor: Sendable, Hashable, CustomStringConvertible {
    /// The last public change the reader has.
    public var publicPosition: Int64
    /// The last change to the reader's own entries they have; nil for anyone without a token.
    public var ownPosition: Int64?

    public init(publicPosition: Int64, ownPosition: Int64?) {
        self.publicPosition = publicPosition
        self.ownPosition = ownPosition
    }

    /// Reads `P` or `P.O`, each a decimal number of at most 18 digits; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count <= 2, let first = parts.first.flatMap(Self.position) else { return nil }
        publicPosition = first
        if parts.count == 2 {
            guard let own = Self.position(parts[1]) else { return nil }
            ownPosition = own
        } else {
            ownPosition = nil
        }
    }

    private static func position(_ text: Substring) -> Int64? {
        guard (1...18).contains(text.utf8.count), text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }) else { return nil }
        return Int64(text)
    }

    public var description: String {
        ownPosition.map { "\(publicPosition).\($0)" } ?? "\(publicPosition)"
    }
}

/// One change in the feed: the entry as `GET /api/entries/{id}` gives it now, or a tombstone
/// for an entry deleted or no longer the reader's to list (the two look the same, so a
/// tombstone never tells which).
public enum EntryChange: Sendable, Equatable, Codable {
    case entry(Entry)
    case deleted(entryID: Int64)

    public var entryID: Int64 {
        switch self {
        case .entry(let entry): entry.id
        case .deleted(let id): id
        }
    }

    private enum TombstoneKeys: String, CodingKey {
        case entryID = "entry_id", deleted
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: TombstoneKeys.self)
        if try container.decodeIfPresent(Bool.self, forKey: .deleted) == true {
            self = .deleted(entryID: try container.decode(Int64.self, forKey: .entryID))
        } else {
            self = .entry(try Entry(from: decoder))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .entry(let entry):
            try entry.encode(to: encoder)
        case .deleted(let id):
            var container = encoder.container(keyedBy: TombstoneKeys.self)
            try container.encode(id, forKey: .entryID)
            try container.encode(true, forKey: .deleted)
        }
    }
}

/// A page of `GET /api/changes`: changes oldest first, where the next page starts, and
/// whether more follow now (false: the reader is up to date as of this page).
public struct ChangePage: Sendable, Equatable, Codable {
    /// The most changes a page holds, and the default.
    public static let maxLimit = 500
    public static let defaultLimit = 200

    public var changes: [EntryChange]
    public var next: String
    public var more: Bool

    public init(changes: [EntryChange], next: ChangeCursor, more: Bool) {
        self.changes = changes
        self.next = next.description
        self.more = more
    }

    /// The `next` cursor read back; nil when the server sent something else.
    public var nextCursor: ChangeCursor? { ChangeCursor(next) }
}

/// Header fields in the order received; names compare case-insensitively, and repeated
/// fields are kept so that duplicates (a second `Content-Length`) can be refused.
public struct HTTPHeaders: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    public private(set) var fields: [(name: String, value: String)] = []

    public init() {}

    public init(_ fields: [(String, String)]) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The first value of the field, or nil.
    public subscript(name: String) -> String? {
        fields.first { $0.name.caseInsensitiveEquals(name) }?.value
    }

    /// Every value the field was sent with, in order.
    public func values(for name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    public mutating func add(_ name: String, _ value: String) {
        fields.append((name: name, value: value))
    }

    /// Sets the field to one value, replacing every earlier value.
    public mutating func set(_ name: String, _ value: String) {
        remove(name)
        fields.append((name: name, value: value))
    }

    public mutating func remove(_ name: String) {
        fields.removeAll { $0.name.caseInsensitiveEquals(name) }
    }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
        fields.makeIterator()
    }
}

extension String {
    /// ASCII case-insensitive comparison, as HTTP field names need.
    func caseInsensitiveEquals(_ other: String) -> Bool {
        let a = utf8, b = other.utf8
        guard a.count == b.count else { return false }
        for (x, y) in zip(a, b) where x != y {
            let lx = (x >= 65 && x <= 90) ? x + 32 : x
            let ly = (y >= 65 && y <= 90) ? y + 32 : y
            if lx != ly { return false }
        }
        return true
    }
}

import HTTPTypes

extension HTTPFields {
    /// The value of the field named `name`, repeated values joined with commas; nil when absent
    /// or when `name` is not a valid field name. For names the API does not define a constant for.
    public subscript(_ name: String) -> String? {
        HTTPField.Name(name).flatMap { self[$0] }
    }

    /// Adds a field after the others of the same name.
    public mutating func add(_ name: HTTPField.Name, _ value: String) {
        append(HTTPField(name: name, value: value))
    }
}

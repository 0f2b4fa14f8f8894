/// The one rule for a query parameter sent more than once, the same on the API and the pages:
/// only a parameter that is a list by design (`tag`, read with a loop over the items) may
/// repeat. Any other that a route reads is refused with a 400 naming it when it comes twice:
/// picking one of its values (the first, or the last) would answer a question that was not asked.
public enum QueryParameters {
    /// The value of `name` in `query` (decoded items in the order sent), nil when absent;
    /// throws when it was sent more than once.
    public static func value(of name: String, in query: [(name: String, value: String)]) throws(ParameterError) -> String? {
        var found: String?
        for item in query where item.name == name {
            guard found == nil else {
                throw ParameterError(name: name, message: "must be given at most once")
            }
            found = item.value
        }
        return found
    }
}

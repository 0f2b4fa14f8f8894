import DiaryAPI
import Foundation

// MARK: - Named tokens

extension DisplayFormat {
    /// One aligned row per named token: id, scope, created, last used ("never"), name.
    public static func tokenRows(_ tokens: [NamedToken], style: DisplayStyle = .plain) -> [String] {
        table(
            tokens.map { token in
                [String(token.id), token.scope.rawValue, date(token.created, style: style),
                 "used " + (token.lastUsed.map { date($0, style: style) } ?? "never"), singleLine(token.name)]
            },
            rightAligned: [0]
        )
    }

    /// The token rows, or "no named tokens yet".
    public static func tokenListing(_ list: TokenList, style: DisplayStyle = .plain) -> String {
        list.tokens.isEmpty ? "no named tokens yet\n" : tokenRows(list.tokens, style: style).joined(separator: "\n") + "\n"
    }

    /// What `diary tokens add` prints: the token on a line of its own (for scripts: the last
    /// line), after a word that it is shown this once.
    public static func createdToken(_ created: CreatedToken) -> String {
        "token \(created.id) (\(created.scope.rawValue)) \(singleLine(created.name)): shown this once, keep it now\n\(created.token)\n"
    }
}

import ArgumentParser
import APITokens
import DiaryStore
import Foundation

struct UserCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user",
        abstract: "Create users and issue their API tokens.",
        subcommands: [Add.self, Token.self]
    )

    // MARK: - add

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "add",
            abstract: "Create a user with a first diary; prints only the new token (it is shown once)."
        )

        @Argument(help: "The user name: letters, digits, '-', '_' or '.', at most 40.")
        var name: String

        @OptionGroup var database: DatabaseOptions

        func validate() throws {
            try UserName.validate(name)
        }

        func run() throws {
            let token = APIToken.generate()
            try withStore(database) { store throws(StoreError) in
                _ = try store.createUser(name: name, tokenHash: TokenHash(token: token))
            }
            print(token)
        }
    }

    // MARK: - token

    struct Token: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "token",
            abstract: "Issue a new token for a user; the old one stops working at once."
        )

        @Argument(help: "The user name.")
        var name: String

        @OptionGroup var database: DatabaseOptions

        func run() throws {
            let token = APIToken.generate()
            try withStore(database) { store throws(StoreError) in
                _ = try store.replaceToken(userName: name, tokenHash: TokenHash(token: token))
            }
            print(token)
        }
    }
}

/// Opens the store, runs `body`, and turns a store failure into one line on stderr and exit 1.
private func withStore(_ options: DatabaseOptions, _ body: (any DiaryStore) throws(StoreError) -> Void) throws {
    do {
        let store = try options.openStore()
        try body(store)
    } catch {
        FileHandle.standardError.write(Data("error: \(error)\n".utf8))
        throw ExitCode.failure
    }
}

enum UserName {
    static func validate(_ name: String) throws {
        let allowed = name.unicodeScalars.allSatisfy { scalar in
            scalar.isASCII && (CharacterSet.alphanumerics.contains(scalar) || "-_.".unicodeScalars.contains(scalar))
        }
        guard (1...40).contains(name.count), allowed, name.first != "." && name.first != "-" else {
            throw ValidationError("A user name is 1 to 40 letters, digits, '-', '_' or '.', starting with a letter or digit.")
        }
    }
}

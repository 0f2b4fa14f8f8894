import APITokens
import DiaryAPI
import DiaryStore
import Foundation
import HTTPCore

extension Authenticator {
    /// The challenge of AtomPub's 401s: clients written for Hatena Blog send Basic once asked.
    static let basicChallenge = #"Basic realm="Diary""#

    /// The caller of an AtomPub request: `Authorization: Basic` with the user's name and one of
    /// their tokens as the password (Hatena Blog's API keys are used so), or `Bearer TOKEN`.
    /// A name that is not the token's owner is refused as a wrong password is, in one 401.
    ///
    /// WSSE (Atompub::Client's default, Hatena's older scheme) is refused with a 401 that asks
    /// for Basic: its digest is SHA-1 of a nonce, a time and the password itself, so checking
    /// it needs the token as it was given, and the store keeps only its SHA-256, so that a
    /// copy of the database holds no working credential (docs/editors.md).
    func atomPubHolder(for request: Request) throws(Problem) -> TokenHolder {
        guard let header = request.headers[.authorization] else {
            throw .unauthorized("This request needs your user name and a token: use HTTP Basic, or 'Authorization: Bearer TOKEN'.")
        }
        let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        let scheme = parts.first?.lowercased() ?? ""
        if scheme == "bearer" { return try holder(for: request) }
        guard scheme == "basic", parts.count == 2 else {
            throw .unauthorized("Use HTTP Basic with your user name and a token as the password (WSSE is not taken), or Bearer.")
        }
        guard let decoded = Data(base64Encoded: String(parts[1].trimmingCharacters(in: .whitespaces))),
              let credentials = String(data: decoded, encoding: .utf8),
              let colon = credentials.firstIndex(of: ":")
        else {
            throw .unauthorized("The Basic credentials are not base64 of NAME:TOKEN.")
        }
        let name = credentials[..<colon]
        let token = credentials[credentials.index(after: colon)...]
        // One answer for a wrong name and a wrong token, so that neither is confirmed alone.
        guard let found = try lookUp(token: String(token)), found.user.name == name else {
            throw .unauthorized("The user name and token do not match; ask for a token with 'diary tokens add NAME'.")
        }
        return found
    }
}

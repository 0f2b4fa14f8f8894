import APITokens
import DiaryAPI
import DiaryStore
import HTTPCore

// MARK: - Named tokens

extension DiaryApplication {
    /// `/api/tokens`: each needs the `write` scope (the contract says so), so only the main
    /// token or a writing token manages tokens.
    static func addTokenRoutes(to router: inout Router, handlers h: Handlers, authenticator auth: Authenticator) {
        router.add(CreateToken.self, authenticator: auth) { endpoint, context throws(Problem) in
            let user = try context.authenticatedUser()
            let body = try endpoint.body.required()
            // Validation refused an unknown scope: `value` is set.
            let scope = body.scope.value ?? .read
            let token = APIToken.generate()
            let named = try h.run { () throws(StoreError) in
                try h.store.createToken(userID: user.id, name: body.name, scope: scope, tokenHash: TokenHash(token: token))
            }
            return Reply(CreatedToken(named, token: token))
        }
        router.add(ListTokens.self, authenticator: auth) { _, context throws(Problem) in
            let user = try context.authenticatedUser()
            return Reply(TokenList(tokens: try h.run { () throws(StoreError) in try h.store.tokens(userID: user.id) }))
        }
        router.add(RevokeToken.self, authenticator: auth) { endpoint, context throws(Problem) in
            let user = try context.authenticatedUser()
            try h.run { () throws(StoreError) in try h.store.revokeToken(id: endpoint.tokenID, userID: user.id) }
            return Reply(NoContent())
        }
    }
}

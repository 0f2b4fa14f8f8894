import DiaryAPI
import DiaryStore
import HTTPCore

// MARK: - Routes

extension DiaryApplication {
    static func addRoutes(to router: inout Router, handlers h: Handlers, authenticator auth: Authenticator, cache: ResponseCache?) {
        // Entries. A reader's token (`context.viewerID`) adds their own unlisted and private entries.
        router.add(ListEntries.self, authenticator: auth, cache: cache) { endpoint, context throws(Problem) in
            try h.entries(diaryID: nil, page: endpoint.page, filter: endpoint.filter, context: context)
        }
        router.add(ListDiaryEntries.self, authenticator: auth, cache: cache) { endpoint, context throws(Problem) in
            try h.entries(diaryID: endpoint.diaryID, page: endpoint.page, filter: endpoint.filter, context: context)
        }
        router.add(GetEntry.self, authenticator: auth, cache: cache) { endpoint, context throws(Problem) in
            let entry = try h.found("entry \(endpoint.entryID)") { () throws(StoreError) in
                try h.store.entry(id: endpoint.entryID, viewerID: context.viewerID)
            }
            return Reply(entry, lastModified: entry.updated)
        }
        router.add(CreateEntry.self, authenticator: auth, handler: h.createEntry)
        router.add(ReplaceEntry.self, authenticator: auth) { endpoint, context throws(Problem) in
            let body = try endpoint.body.required()
            let changes = EntryChanges(
                title: body.title, body: body.body, tags: body.tags, visibility: body.visibility?.value, created: body.created, draft: body.draft
            )
            return try h.updateEntry(endpoint.entryID, changes, context)
        }
        router.add(UpdateEntry.self, authenticator: auth) { endpoint, context throws(Problem) in
            let body = try endpoint.body.required()
            let changes = EntryChanges(
                title: body.title, body: body.body, tags: body.tags, visibility: body.visibility?.value, created: body.created, draft: body.draft
            )
            return try h.updateEntry(endpoint.entryID, changes, context)
        }
        router.add(DeleteEntry.self, authenticator: auth) { endpoint, context throws(Problem) in
            let user = try context.authenticatedUser()
            try h.run { () throws(StoreError) in
                try h.store.deleteEntry(id: endpoint.entryID, userID: user.id, precondition: context.entryPrecondition)
            }
            return Reply(NoContent())
        }

        // Diaries
        router.add(ListDiaries.self, authenticator: auth, cache: cache) { _, context throws(Problem) in
            let diaries = try h.run { () throws(StoreError) in try h.store.diaries(viewerID: context.viewerID) }
            return Reply(DiaryList(diaries: diaries), lastModified: diaries.map(\.updated).max())
        }
        router.add(GetDiary.self, authenticator: auth, cache: cache) { endpoint, context throws(Problem) in
            let diary = try h.found("diary \(endpoint.diaryID)") { () throws(StoreError) in
                try h.store.diary(id: endpoint.diaryID, viewerID: context.viewerID)
            }
            return Reply(diary, lastModified: diary.updated)
        }
        router.add(CreateDiary.self, authenticator: auth) { endpoint, context throws(Problem) in
            let user = try context.authenticatedUser()
            let body = try endpoint.body.required()
            let key = try context.idempotencyKey(for: body)
            let created = try h.run { () throws(StoreError) in
                try h.store.createDiary(
                    ownerID: user.id, title: body.title, defaultVisibility: body.defaultVisibility?.value ?? .public, idempotency: key
                )
            }
            return Reply(created.value, replayed: created.replayed)
        }
        router.add(UpdateDiary.self, authenticator: auth) { endpoint, context throws(Problem) in
            let user = try context.authenticatedUser()
            let body = try endpoint.body.required()
            let diary = try h.run { () throws(StoreError) in
                try h.store.updateDiary(id: endpoint.diaryID, userID: user.id, title: body.title, defaultVisibility: body.defaultVisibility?.value)
            }
            return Reply(diary, lastModified: diary.updated)
        }

        // Tags, export and import
        router.add(ListTags.self, authenticator: auth, cache: cache) { _, context throws(Problem) in
            Reply(TagList(tags: try h.run { () throws(StoreError) in try h.store.tags(viewerID: context.viewerID) }))
        }
        router.add(ExportEntries.self, authenticator: auth) { endpoint, context throws(Problem) in
            h.export(endpoint.format, ownerID: context.viewerID)
        }
        router.add(ImportEntries.self, authenticator: auth) { endpoint, context throws(Problem) in
            let user = try context.authenticatedUser()
            let body = try endpoint.body.required()
            return Reply(try h.run { () throws(StoreError) in try h.store.importEntries(userID: user.id, entries: body.entries) })
        }

        // Media: uploads are processed off the read workers (POST: the transport's blocking threads).
        router.add(UploadMedia.self, authenticator: auth, handler: h.uploadMedia)
        router.add(ListMedia.self, authenticator: auth) { endpoint, context throws(Problem) in
            let user = try context.authenticatedUser()
            return Reply(try h.run { () throws(StoreError) in try h.store.mediaList(ownerID: user.id, page: endpoint.page) })
        }
        router.add(GetMedia.self, authenticator: auth) { endpoint, context throws(Problem) in
            Reply(try h.found("image \(endpoint.mediaID)") { () throws(StoreError) in
                try h.store.media(id: endpoint.mediaID, viewerID: context.viewerID)?.item
            })
        }
        router.add(DeleteMedia.self, authenticator: auth) { endpoint, context throws(Problem) in
            let user = try context.authenticatedUser()
            try h.run { () throws(StoreError) in try h.store.deleteMedia(id: endpoint.mediaID, userID: user.id) }
            return Reply(NoContent())
        }
        // Change feed (the offline replica): never cached, each page read in one transaction.
        router.add(ListChanges.self, authenticator: auth) { endpoint, context throws(Problem) in
            try h.changes(endpoint, viewerID: context.viewerID)
        }

        // Users and service
        router.add(GetCurrentUser.self, authenticator: auth) { _, context throws(Problem) in
            Reply(try context.authenticatedUser())
        }
        router.add(GetHealth.self, authenticator: auth, cache: cache) { _, _ throws(Problem) in
            Reply(HealthStatus(status: "ok"))
        }
        router.add(GetReadiness.self, authenticator: auth) { _, _ throws(Problem) in try h.readiness() }

        // Named tokens (issue 23)
        addTokenRoutes(to: &router, handlers: h, authenticator: auth)
        router.add(OpenAPIDocument.route)
    }
}

import Hummingbird
import PipelineCore

// MARK: - The table of routes and roles

extension OperatorConsole {
    /// Every route of the console with what it needs, the one place access is decided (see
    /// `docs/console.md`, which lists the same table). Reading needs a login; everything
    /// that moves money or messages (grants and take-backs, replaying or discarding a dead
    /// letter or a group, sending webhooks again) needs the `adjust` role. The login page
    /// and post are open; logging out needs a session only.
    static let routes: [ConsoleRoute] = [
        .page("", needs: .login) { console, session, call in try await console.overview(session, call.query) },
        .open(.get, "login") { console, request, _ in console.loginForm(request) },
        .open(.post, "login") { console, request, address in try await console.login(request, from: address) },
        .change("logout", needs: .login) { console, session, _ in console.logout(session) },
        .page("dead", needs: .login) { console, session, call in try await console.deadLetters(session, call.query) },
        .page("dead/:id", needs: .login) { console, session, call in
            try await console.deadLetter(session, id: call.id)
        },
        .change("dead/:id/replay", needs: .role(.adjust)) { console, session, call in
            try await console.replay(session, id: call.id)
        },
        .change("dead/:id/discard", needs: .role(.adjust)) { console, session, call in
            try await console.discard(session, id: call.id, reason: call.form.text("reason"))
        },
        .change("groups/replay", needs: .role(.adjust)) { console, session, call in
            try await console.replayGroup(session, call.form)
        },
        .change("groups/discard", needs: .role(.adjust)) { console, session, call in
            try await console.discardGroup(session, call.form)
        },
        .page("receipts", needs: .login) { console, session, call in
            try await console.search(session, call.query.text("q"))
        },
        .page("webhooks", needs: .login) { console, session, call in
            try await console.webhookLog(session, call.query)
        },
        .page("webhooks/:id", needs: .login) { console, session, call in
            try await console.webhook(session, id: call.id)
        },
        .change("webhooks/:id/replay", needs: .role(.adjust)) { console, session, call in
            try await console.replayWebhooks(session, id: call.id, call.form)
        },
        .change("webhooks/replay-failed", needs: .role(.adjust)) { console, session, call in
            try await console.replayWebhooks(session, id: nil, call.form)
        },
        .page("revenue", needs: .login) { console, session, call in try await console.revenue(session, call.query) },
        .page("revenue.csv", needs: .login) { console, session, call in
            try await console.revenueCSV(session, call.query)
        },
        .page("accounts", needs: .login) { console, session, call in
            try await console.accountSearch(session, call.query)
        },
        .page("accounts/:id", needs: .login) { console, session, call in
            try await console.accountPage(session, id: call.id, query: call.query)
        },
        .change("accounts/:id/adjust", needs: .role(.adjust)) { console, session, call in
            try await console.adjust(session, accountID: call.id, call.form)
        },
    ]

    /// Adds the console's routes under `/console`, each from the table: a route is only ever
    /// registered with the need the table gives it.
    public func register<Context: RemoteAddressRequestContext>(on router: Router<Context>) {
        for route in Self.routes {
            router.on(route.routerPath, method: route.method) { request, context in
                let raw = context.parameters.get("id") ?? ""
                // A link writes another app's `racer/player-1` as `racer%2Fplayer-1`, one path
                // component, which the router hands over as written.
                return try await serve(
                    route, request, id: raw.removingPercentEncoding ?? raw,
                    // An IPv6 client by its /64, as every per-client limit counts it.
                    address: ClientAddressKey(ipAddress: context.remoteAddress?.ipAddress).description)
            }
        }
    }

    /// Whether `session`'s operator may post to `path` (a change of the table), and so is
    /// shown its buttons and forms.
    func offers(_ path: String, to session: ConsoleSession) -> Bool {
        Self.routes.first { $0.method == .post && $0.path == path }?.admits(session.operatorName, configuration)
            ?? false
    }

    /// What a page shows instead of the buttons of `path` that its operator may not use.
    func readOnlyNote(_ what: String, _ path: String) -> String {
        let need = Self.routes.first { $0.method == .post && $0.path == path }?.access.description ?? "adjust"
        return "<p class=\"read-only\" id=\"read-only\">Read-only: \(HTML.escape(what)) needs the "
            + "<code>\(HTML.escape(need))</code> role (<code>IAP_CONSOLE_OPERATORS=name:secret:"
            + "\(HTML.escape(need))</code>).</p>"
    }
}

import DeadLetters
import PipelineCore

// MARK: - Apps: the lists' app filter

extension OperatorConsole {
    /// How a list names accounts: one app's ids with `app=`, else `<app>/<account>` for all.
    /// - Throws: ``FilterError`` naming an app the apps file does not list.
    func naming(_ query: FormValues) throws -> AccountNaming {
        let apps = configuration.apps
        guard let id = query.text("app") else { return AccountNaming(apps: apps) }
        guard let scope = apps.scope(id) else {
            throw FilterError(field: "app", problem: "'\(id.prefix(64))' is not an app of IAP_APPS")
        }
        return AccountNaming(apps: apps, scope: scope)
    }

    /// The app picker of a list's filter form; nothing with the single-app settings.
    func appPicker(_ naming: AccountNaming) -> String {
        guard naming.apps.hasApps else { return "" }
        var html = "<label>App <select name=\"app\" id=\"app\"><option value=\"\">every app</option>"
        for id in naming.apps.ids {
            html += "<option\(naming.scope?.id == id ? " selected" : "")>\(HTML.escape(id))</option>"
        }
        return html + "</select></label> "
    }

    /// A link to the page of a stored account, named as `naming` shows it.
    static func accountLink(_ stored: String, _ naming: AccountNaming) -> HTML.Cell {
        .link(naming.name(stored), to: "/console/accounts/" + HTML.query(stored))
    }
}

import Apps
import PipelineCore

/// The apps' webhooks (issue 30). The first app of `IAP_APPS` is the default app: its
/// `webhook`, when it has one, takes the place of `IAP_WEBHOOK_URL` and `IAP_WEBHOOK_SECRET`
/// (which serve it otherwise). Every other app's is its own; an app without one keeps its
/// notifications pending.
extension NotifierSettings {
    mutating func read(_ file: AppsFile, over environment: EnvironmentReader) throws(SettingError) {
        for (index, app) in file.apps.enumerated() where app.parts.contains("webhook") {
            let own: NotifierSettings
            do throws(SettingError) {
                own = try NotifierSettings(single: app.environment(over: environment), generateMissingSecret: false)
            } catch {
                throw file.named(error, app: app.id)
            }
            guard let url = own.webhookURL else { continue }
            if index == 0 {
                webhookURL = url
                secret = own.secret
                additionalSecrets = own.additionalSecrets
                secretWasGenerated = false
            } else {
                apps[app.id] = Notifier.AppWebhook(
                    url: url, secret: own.secret, additionalSecrets: own.additionalSecrets)
            }
        }
    }
}

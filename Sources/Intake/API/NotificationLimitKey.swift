import PipelineCore

/// The bucket of the notification routes' rate limit (`IAP_NOTIFICATION_RATE_LIMIT`) a
/// request takes from: one per store route and client, so that a flood on one store's route
/// (unsigned Huawei notices) cannot get another store's genuine notifications answered 429,
/// and a client is counted as every per-client limit counts it (an IPv6 client by its /64).
struct NotificationLimitKey: Hashable, Sendable {
    /// The store of the route, as in `/v1/<store>/notifications`.
    var store: String
    var client: ClientAddressKey
}

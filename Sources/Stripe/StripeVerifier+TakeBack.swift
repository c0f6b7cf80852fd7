import Foundation
import PipelineCore
import StorePlugins

// MARK: - Refunds and disputes: the payment's share taken back, read back from Stripe

extension StripeVerifier {
    /// A refunded charge, read back: `REFUND` of the share refunded so far.
    ///
    /// Stripe's `amount_refunded` adds every refund up, so the share is the whole of what was
    /// paid back so far: the engine takes that share less what earlier refunds took (a refund
    /// to 80 % after one of 30 % takes 50 % more; the same event twice takes nothing more).
    func refund(_ event: StripeEvent, charge id: String) async throws(StoreCallError) -> VerificationOutcome {
        let charge = try await client.charge(id)
        guard charge.amountRefunded > 0, let paymentIntent = charge.paymentIntent,
            var transaction = try await sold(paymentIntent)
        else {
            return .notification(Self.recorded(event))
        }
        transaction.revocationPercentage = charge.refundedShare
        transaction.cancellationDate = event.created ?? now()
        var notification = Self.recorded(event, as: StoreNotification.Kind.refund.rawValue)
        notification.transaction = transaction
        return .notification(notification)
    }

    /// A dispute, read back with its charge; what it is now decides, not the event that
    /// announced it (two events of one dispute may be verified out of order):
    ///
    /// - lost, or its funds withdrawn while it is still open: `REVOKE` of the disputed share.
    ///   Stripe withdraws the money when the dispute opens, weeks before it is decided, so
    ///   the coins go then too rather than be spent meanwhile. The engine reads a share as
    ///   what is taken back so far: a dispute of a charge refunded in part before reaches no
    ///   further than the refund did, and takes nothing, since a win would not give it back.
    /// - won: `REFUND_REVERSED`, which gives back what the withdrawal took. Not when the
    ///   charge was refunded in part before: Stripe refuses refunds of a disputed charge,
    ///   so that take-back was the refund's, which the dispute does not undo.
    /// - anything else (an inquiry, a warning closed): recorded.
    func dispute(_ event: StripeEvent, id: String) async throws(StoreCallError) -> VerificationOutcome {
        let dispute = try await client.dispute(id)
        let charge: StripeCharge
        switch dispute.charge {
        case .object(let expanded): charge = expanded
        case .id(let id): charge = try await client.charge(id)
        }
        guard let paymentIntent = charge.paymentIntent ?? dispute.paymentIntent,
            var transaction = try await sold(paymentIntent)
        else {
            return .notification(Self.recorded(event))
        }
        let open = ["needs_response", "under_review"].contains(dispute.status)
        let kind: StoreNotification.Kind
        if dispute.status == "lost" || (event.type == "charge.dispute.funds_withdrawn" && open) {
            kind = .revoke
            // After a partial refund the dispute's share is the refund's: a won dispute gives
            // back nothing then (below), so it must not have taken anything either.
            transaction.revocationPercentage =
                charge.amountRefunded > 0
                ? charge.refundedShare : StripeCharge.share(dispute.amount, of: charge.amount)
            transaction.cancellationDate = event.created ?? now()
        } else if dispute.status == "won", event.type == "charge.dispute.closed", charge.amountRefunded == 0 {
            kind = .refundReversed
        } else {
            return .notification(Self.recorded(event))
        }
        var notification = Self.recorded(event, as: kind.rawValue)
        notification.transaction = transaction
        return .notification(notification)
    }

    /// The transaction a payment credited: its Checkout Session read back by the
    /// PaymentIntent (the charge names no product). Nil when no session the pipeline could
    /// credit made it: a payment of something else this Stripe account sells.
    func sold(_ paymentIntent: String) async throws(StoreCallError) -> VerifiedTransaction? {
        let sessions = try await client.checkoutSessions(paymentIntent: paymentIntent)
        guard let session = sessions.first(where: { $0.paymentIntent == paymentIntent }),
            case .success(let transaction) = Self.transaction(of: session)
        else {
            return nil
        }
        return transaction
    }
}

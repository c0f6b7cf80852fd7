import Foundation
import OpenAPIRuntime
import PipelineTesting
import Testing

/// A client that swift-openapi-generator's build plugin generated from docs/openapi.yaml,
/// used as a backend would use it against the real pipeline: the spec is one that a standard
/// generator takes whole (the plugin fails the build on a spec it cannot read, and its
/// warnings name every shape it drops).
@Suite struct GeneratedClientTests {
    static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func theClientIsGeneratedFromDocsOpenAPIYAML() throws {
        // The plugin reads the spec from the target's folder: a link to docs/openapi.yaml.
        let generatedFrom = try Data(
            contentsOf: Self.repository.appendingPathComponent("Tests/GeneratedClientTests/openapi.yaml"))
        let spec = try Data(contentsOf: Self.repository.appendingPathComponent("docs/openapi.yaml"))
        #expect(generatedFrom == spec, "Tests/GeneratedClientTests/openapi.yaml is not docs/openapi.yaml")
    }

    @Test func aReceiptSubmittedThroughTheGeneratedClient_isCreditedToTheAccountItReadsBack() async throws {
        try await ClientPipeline.run { pipeline in
            // Given a legacy receipt the stub store vouches for
            let receipt = pipeline.receipt(transaction: "generated-client-1")

            // When the backend submits it with the generated client
            let submitted = try await pipeline.client.submitReceipt(
                body: .json(.init(accountId: "player-generated-1", receiptData: receipt)))
            let summary = try submitted.accepted.body.json
            #expect(summary.status == .received)

            // Then the account it reads back with the same client is credited, as is the receipt
            var account: Components.Schemas.AccountDetails?
            let credited = await eventually(timeout: .seconds(30), every: .milliseconds(100)) {
                guard case .ok(let ok) = try? await pipeline.client.getAccount(path: .init(id: "player-generated-1"))
                else { return false }
                account = try? ok.body.json
                return account?.balances.additionalProperties["coins"] == 100
            }
            #expect(credited, "the account as last read: \(String(describing: account))")
            #expect(account?.ledger.map(\.kind) == [.purchase])
            #expect(account?.consumptionConsent == nil)
            let details = try await pipeline.client.getReceipt(path: .init(id: summary.receiptId)).ok.body.json
            #expect(details.status == .credited)
            #expect(details.transactions.map(\.outcome) == [.credited])
        }
    }

    @Test func aReceiptWithoutAStoreMember_isRefusedInTheDocumentedErrorShape() async throws {
        try await ClientPipeline.run { pipeline in
            // When the backend submits a receipt with none of the stores' members
            let submitted = try await pipeline.client.submitReceipt(body: .json(.init(accountId: "player-generated-2")))

            // Then the 400 decodes as the spec's BadRequestError: the API's Error, with its code
            let refusal = try submitted.badRequest.body.json
            #expect(refusal.value1.error.code == "missing_receipt")
            #expect(refusal.value2.error?.code == .missingReceipt)
            #expect(!refusal.value1.error.message.isEmpty)
        }
    }
}

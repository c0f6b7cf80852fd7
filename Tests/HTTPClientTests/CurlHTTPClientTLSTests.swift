import HTTPClient
import Testing

/// TLS against a real `openssl s_server` with a self-signed certificate.
@Suite(.enabled(if: TLSTestServer.isAvailable, "needs /usr/bin/openssl"))
struct CurlHTTPClientTLSTests {
    @Test func untrustedCertificate_failsWithTLS_notRetryable() async throws {
        // Given: a server whose certificate no system CA vouches for
        let server = try TLSTestServer()
        try await withClient { client in
            // When
            let error = await failure {
                try await client.execute(HTTPRequest(url: "https://127.0.0.1:\(server.port)/"))
            }

            // Then: the same certificate will fail the same way next time
            #expect(error?.code == .tls)
            #expect(error?.isRetryable == false)
        }
    }

    @Test func certificateTrustedThroughCAFile_succeeds() async throws {
        // Given: the same kind of server, and its certificate as the CA file
        let server = try TLSTestServer()
        try await withClient(.init(caFile: server.certificateFile)) { client in
            // When
            let response = try await client.execute(HTTPRequest(url: "https://127.0.0.1:\(server.port)/"))

            // Then: verification (peer and host) passed and the server answered
            #expect(response.status == 200)
        }
    }

    @Test func plainHTTPServer_spokenToOverTLS_failsWithRetryableTLS() async throws {
        try await TestServer.run { server in
            try await withClient { client in
                // When: a handshake meets a server that does not speak TLS
                let error = await failure {
                    try await client.execute(HTTPRequest(url: "https://127.0.0.1:\(server.port)/hello"))
                }

                // Then: a broken handshake, not a certificate verdict, so worth another try
                #expect(error?.code == .tls)
                #expect(error?.isRetryable == true)
            }
        }
    }
}

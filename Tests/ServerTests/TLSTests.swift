import Foundation
import TestSupport
import Testing

/// `scanpick serve` over HTTPS, and its refusal to hand tokens to the network in plain HTTP.
@Suite struct TLSTests {
    /// Runs curl against `url`, trusting `authority`; returns curl's exit status and the body.
    static func curl(_ url: URL, trusting authority: String, in folder: String) async throws -> (Int32, String) {
        let run = try await ProcessRunner.run(
            "/usr/bin/curl", ["-sS", "--max-time", "10", "--cacert", authority, url.absoluteString], in: folder)
        return (run.status, run.standardOutput)
    }

    @Test func servesHTTPSWithItsCertificateAndNothingElse() async throws {
        let certificates = try await TestCertificates()
        let server = try await ServerProcess(extraConfig: [
            "tls": ["certificate": certificates.serverCertificate, "key": certificates.serverKey]
        ])
        #expect(server.baseURL.scheme == "https")
        let (status, body) = try await Self.curl(
            server.baseURL.appendingPathComponent("/health"), trusting: certificates.authority,
            in: certificates.folder.path)
        #expect(status == 0)
        #expect(body == #"{"status":"ok"}"#)
        // Another CA's client refuses the server (curl 60: the certificate cannot be verified).
        let other = try await TestCertificates()
        let (refused, _) = try await Self.curl(
            server.baseURL.appendingPathComponent("/health"), trusting: other.authority, in: other.folder.path)
        #expect(refused == 60)
        // Plain HTTP on the HTTPS port gets no answer it could mistake for one.
        var plain = URLComponents(url: server.baseURL, resolvingAgainstBaseURL: false)!
        plain.scheme = "http"
        let (plainStatus, plainBody) = try await Self.curl(
            plain.url!.appendingPathComponent("/health"), trusting: certificates.authority,
            in: certificates.folder.path)
        #expect(plainStatus != 0 || !plainBody.contains("ok"))
    }

    @Test func tokensAreNotServedToTheNetworkInPlainHTTPUnlessAllowed() async throws {
        let server = try await ServerProcess()
        try await server.stop()
        let refused = try await ProcessRunner.scanpick([
            "serve", "--config", server.configPath, "--listen", "0.0.0.0:0",
        ])
        #expect(refused.status != 0)
        let refusal = LogLines(refused.standardError).messages(of: "start_failed").joined()
        #expect(refusal.contains("in the clear"))
        #expect(refusal.contains(#""allowPlainHTTP": true"#))

        let folder = try TemporaryDirectory()
        let missing = try folder.write(
            "server.json",
            text: #"{"listen":"127.0.0.1:0","organisations":{},"tls":{"certificate":"nope.pem","key":"nope.key"}}"#)
        let noFile = try await ProcessRunner.scanpick(["serve", "--config", missing])
        #expect(noFile.status != 0)
        #expect(noFile.standardError.contains("\(folder.path)/nope.pem: no such file"))
    }

    @Test func plainHTTPOnTheNetworkRunsWhenAllowedDeliberately() async throws {
        let server = try await ServerProcess(extraConfig: ["listen": "0.0.0.0:0", "allowPlainHTTP": true])
        var local = URLComponents(url: server.baseURL, resolvingAgainstBaseURL: false)!
        local.host = "127.0.0.1"
        #expect(try await APIClient(local.url!, token: nil).get("/health").status == 200)
    }
}

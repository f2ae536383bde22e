import Foundation
import Queue
import ScanPickClient
import Station
import TestSupport
import Testing

/// The station against a real HTTPS server whose certificate a private CA signed: until the machine
/// trusts that CA the queue pauses (a setup fault), and nothing is tried, counted or dead-lettered.
@Suite struct UntrustedServerTests {
    @Test func aServerCertificateOfAnUntrustedCAPausesTheQueueAndKillsNothing() async throws {
        let certificates = try await TestCertificates()
        let server = try await ServerProcess(extraConfig: [
            "tls": ["certificate": certificates.serverCertificate, "key": certificates.serverKey]
        ])
        #expect(server.baseURL.scheme == "https")
        let folder = try TemporaryDirectory()
        let queue = try ActionQueue(path: folder.file("station.sqlite"))
        let id = try queue.enqueue(.pick(org: "acme", pickTaskId: "t1", location: nil, qty: 1, worker: "w"))
        let transport = ScanPickHTTPClient(
            server: server.baseURL, tokens: ["acme": ServerProcess.tokens["acme"] ?? ""], timeout: 5)
        let drainer = Drainer(queue: queue, transport: transport, backoff: BackoffPolicy(initial: 2, cap: 60))
        for _ in 0..<2 {
            let pass = try await drainer.drainPass(honouringBackoff: false)
            guard case .paused(let attention, _) = pass.stop else {
                throw TestFailure("expected a pause, got \(pass.stop)")
            }
            #expect(attention.code == "tls")
            #expect(attention.message.contains("certificate"), "\(attention.message)")
        }
        #expect(try queue.action(id)?.state == .pending)
        #expect(try queue.action(id)?.tries == 0)
        #expect(try queue.counts().dead == 0)
        // The station says what to do about it when its config names the CA.
        #expect(
            !SystemTrust.trusts(certificatesIn: certificates.authority),
            "the throw-away test CA must not be in this machine's store")
        #expect(try SystemTrust.certificates(inFile: certificates.authority).count == 1)
    }
}

@testable import MicroHTTPDServer
import Testing

/// The IPv4 text written by hand reads as inet_ntop's does.
@Suite struct ClientAddressTests {
    @Test(arguments: [
        ([192, 0, 2, 7], "192.0.2.7"), ([0, 0, 0, 0], "0.0.0.0"), ([255, 255, 255, 255], "255.255.255.255"),
        ([10, 100, 9, 99], "10.100.9.99"), ([127, 0, 0, 1], "127.0.0.1"),
    ] as [([UInt8], String)])
    func dottedQuads(bytes: [UInt8], text: String) {
        #expect(bytes.withUnsafeBytes { ClientAddress.dottedQuad($0) } == text)
    }
}

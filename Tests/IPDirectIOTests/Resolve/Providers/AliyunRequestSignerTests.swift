import Testing
import IPDirectCore
@testable import IPDirectIO

@Suite struct AliyunRequestSignerTests {
    @Test func signsTheVendorExampleExactly() {
        let signer = AliyunRequestSigner(accountID: "100000", secret: "IAmASecret")
        #expect(signer.signature(name: "www.aliyun.com", expiry: 1534316400) == "60c71e98b6d7fcbb366243e224eab457")
    }

    @Test func signedRequestExpiresTheConfiguredLifetimeAhead() {
        let signer = AliyunRequestSigner(accountID: "100000", secret: "IAmASecret", signatureLifetime: 600)
        let request = signer.request(name: "www.aliyun.com", families: [.v4, .v6], now: 1534315800)
        #expect(request.target
            == "/100000/sign_d?host=www.aliyun.com&query=4,6&t=1534316400&s=60c71e98b6d7fcbb366243e224eab457")
    }

    @Test func neverSignsMoreThanTwentyFourHoursAhead() {
        let signer = AliyunRequestSigner(accountID: "1", secret: "s", signatureLifetime: 7 * 86_400)
        let request = signer.request(name: "a.test", families: [.v4], now: 1_000_000)
        #expect(request.target.contains("&t=1086400&"))
        #expect(request.target.hasSuffix("&s=" + signer.signature(name: "a.test", expiry: 1_086_400)))
    }

    @Test func theSecretNeverAppearsInTheRequest() {
        let signer = AliyunRequestSigner(accountID: "1", secret: "TopSecretValue")
        #expect(!signer.request(name: "a.test", families: [.v4], now: 0).target.contains("TopSecretValue"))
    }
}

import HeraldTestSupport
import Testing

/// The interop and TLS tests start nghttpd, nghttp and openssl: without them they fail, naming
/// the package to install, instead of passing without having checked anything.
@Suite("A test that needs a tool")
struct RequiredToolTests {
    @Test("fails when the tool is missing, naming the Debian package that installs it")
    func missingToolFails() {
        let error = #expect(throws: MissingTool.self) {
            try requireExecutable("herald-no-such-tool", debianPackage: "herald-no-such-package")
        }
        #expect(error?.description.contains("apt-get install herald-no-such-package") == true)
    }

    @Test("finds an installed tool on PATH or in sbin")
    func installedToolIsFound() throws {
        #expect(try requireExecutable("sh", debianPackage: "dash").hasSuffix("/sh"))
    }
}

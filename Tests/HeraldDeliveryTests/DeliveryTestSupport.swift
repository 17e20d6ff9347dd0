import HeraldTestSupport

// The sandbox, the push gateway, the temporary store and the dev app come from HeraldTestSupport,
// shared with the push suites; only this suite's token family is its own.

/// A device token: 32 bytes of hex, distinct for each `seed`, apart from other suites' tokens.
func deviceToken(_ seed: Int) -> String { testDeviceToken(seed, family: 0xd7) }

"use strict"
// Stand-in: the real provider talks to Poe's API; nothing here is meant to be called.
function unavailable(name) {
	return () => {
		throw new Error(`ai-sdk-provider-poe stand-in: ${name} is not available in this test install`)
	}
}
exports.createPoe = unavailable("createPoe")

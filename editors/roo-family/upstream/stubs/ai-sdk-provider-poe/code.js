"use strict"
function unavailable(name) {
	return () => {
		throw new Error(`ai-sdk-provider-poe stand-in: ${name} is not available in this test install`)
	}
}
exports.POE_DEFAULT_BASE_URL = "https://api.poe.com/v1"
exports.poeDefaultModelId = "claude-sonnet-4"
exports.getPoeDefaultModelInfo = () => ({ maxTokens: 8192, contextWindow: 200000, supportsImages: true, supportsPromptCache: false })
exports.extractUsageMetrics = unavailable("extractUsageMetrics")
exports.mapToolChoice = unavailable("mapToolChoice")
exports.fetchPoeModels = unavailable("fetchPoeModels")
exports.getModels = unavailable("getModels")

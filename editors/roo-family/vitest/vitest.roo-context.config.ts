// Written by run.sh next to the upstream suite's own vitest.config.ts (with the plugin's path
// filled in): the upstream configuration unchanged, plus the adapter swap (ROO_FAMILY_SWAP=0
// turns it off for the baseline run).
import { mergeConfig } from "vitest/config"
import upstream from "./vitest.config"
// @ts-ignore: a plain JavaScript module outside this tree
import { rooContextAdapters } from "__ROO_FAMILY_PLUGIN__"

export default mergeConfig(upstream, {
	plugins: [rooContextAdapters({ upstreamSrc: __dirname, enabled: process.env.ROO_FAMILY_SWAP !== "0" })],
})

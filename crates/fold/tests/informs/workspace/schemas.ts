import { z } from "zod";
import { create } from "zustand";

export const providerSettingsSchema = z.object({
  apiProvider: z.enum(["anthropic", "openai", "gemini"]).optional(),
  apiModelId: z.string().optional(),
  temperature: z.number().min(0).max(2).optional(),
  rateLimitSeconds: z.number().optional(),
});

export type ProviderSettings = z.infer<typeof providerSettingsSchema>;

export const MODEL_IDS = [
  "claude-sonnet-4",
  "gpt-4.1",
  "gemini-2.5-pro",
  "o3",
] as const;

export const DEFAULT_SETTINGS: ProviderSettings = {
  apiProvider: "anthropic",
  apiModelId: "claude-sonnet-4",
  temperature: 0,
};

const useSettingsStore = create<ProviderSettings>()((set) => ({
  ...DEFAULT_SETTINGS,
  setModel: (apiModelId: string) => set({ apiModelId }),
  reset: () => set(DEFAULT_SETTINGS),
}));

export const SettingsValidator = class {
  validate(value: unknown): boolean {
    return providerSettingsSchema.safeParse(value).success;
  }
};

export const shortList = ["a", "b"];

export function isKnownModel(id: string): boolean {
  const known: readonly string[] = MODEL_IDS;
  return known.includes(id);
}

export { useSettingsStore };

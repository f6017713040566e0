/** The languages the written rows cover, English first (other languages borrow its payloads). */
import { de } from "./de.js";
import { en } from "./en.js";
import type { LanguagePack } from "./pack.js";

export const PACKS: readonly LanguagePack[] = [en, de];

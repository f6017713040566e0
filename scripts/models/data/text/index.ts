/**
 * The languages the written rows cover, English first (other languages borrow its payloads). New
 * languages go at the end: rows are deduplicated in this order, so earlier files stay unchanged.
 */
import { ar } from "./ar.js";
import { de } from "./de.js";
import { en } from "./en.js";
import { es } from "./es.js";
import { fr } from "./fr.js";
import { he } from "./he.js";
import { hi } from "./hi.js";
import { id } from "./id.js";
import { it } from "./it.js";
import { ja } from "./ja.js";
import { ko } from "./ko.js";
import { nl } from "./nl.js";
import { pl } from "./pl.js";
import { pt } from "./pt.js";
import { ru } from "./ru.js";
import { th } from "./th.js";
import { tr } from "./tr.js";
import { uk } from "./uk.js";
import { vi } from "./vi.js";
import { zh } from "./zh.js";
import type { LanguagePack } from "./pack.js";

export const PACKS: readonly LanguagePack[] = [en, de, fr, es, pt, it, nl, pl, ru, uk, tr, ar, he, hi, zh, ja, ko, vi, id, th];

import { letterCaseCheck } from "../shared/letter-case.js";

/** Passes when no letter of the text is upper or title case (see letter-case.ts). */
export default letterCaseCheck("lower");

/** The categories of personal data the `pii` check reports, with how each is recognised. */
export const PII_CATEGORIES = {
  EMAIL_ADDRESS: "An address local@domain.tld (ASCII; the top-level domain is not a file extension such as .png).",
  PHONE_NUMBER:
    "A phone number valid for its region by libphonenumber's full metadata: written with + (or 00) and a country code, or in the national format of one of `phoneRegions`.",
  CREDIT_CARD:
    "A payment card number: 13–19 digits (grouped with spaces or dashes, or not at all) with a known issuer prefix and length, passing the Luhn check.",
  SSN: "A US Social Security number: 123-45-6789 or 123 45 6789 (nine bare digits only after SSN or social security); area 000, 666 and 900–999, group 00 and serial 0000 are invalid and not reported.",
  IP_ADDRESS: "An IPv4 address (four octets 0–255) or an IPv6 address (validated by ipaddr.js), not part of a version string.",
  IBAN: "An International Bank Account Number, electronic or grouped by fours, with the length of its country and a valid mod-97 check.",
  URL: "A URL with a scheme (http, https, ftp) or starting with www.",
} as const;

/** A category of personal data. */
export type PiiCategory = keyof typeof PII_CATEGORIES;

/** Every category, in the order the docs list them. */
export const ALL_PII_CATEGORIES = Object.keys(PII_CATEGORIES) as PiiCategory[];

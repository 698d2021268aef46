/**
 * Quantities in questions and sentences: whether a question asks for one ("How many…", "What is the
 * maximum…") and whether a sentence states one ("The default is 1 GB."), for the answers' figure rules.
 */

/** Questions that ask for a quantity: "how many / much / long / big…", "what size / port / year…", "the maximum / highest…". */
const ASKS_QUANTITY = /\bhow (?:many|much|long|big|large|often|far|old|tall|high|wide|deep|fast|heavy|small|short)\b|\bwhat (?:size|port|year|percentage|version|number|amount)\b|\b(?:maximum|minimum|max|min|largest|smallest|highest|lowest|longest|shortest|biggest|limit)\b/iu;
/**
 * A figure in a sentence: digits not inside a name ("5min" and "128MB" are figures; "sqlite3_limit" and
 * "arg0" are not), or a number word from "two" on: "one" is as often a pronoun or an article ("one of
 * these ways", "uses one process per connection") as a count, and manuals write counts of one in digits too
 * ("one minute (1min)").
 */
const QUANTITY = /(?<![\p{L}_])\p{Nd}|\b(?:two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|hundred|thousand|million|billion|trillion|dozen|twice|half)\b/iu;
/** Numbers that point somewhere rather than measure: "Table 8.9", "see Section 4.2", "Chapter 20". */
const REFERENCE_NUMBER = /\b(?:table|section|figure|fig|chapter|example|appendix|part|step|version|v|rfc|pep|§)\.?\s*\p{Nd}[\p{Nd}.]*/giu;

/** Whether a question asks for a quantity ("How many…", "How long…", "What is the maximum…"). */
export function asksForQuantity(question: string): boolean {
  return ASKS_QUANTITY.test(question);
}

/** Whether a text states a figure (a number or a number word), references such as "Table 8.9" aside. */
export function holdsQuantity(text: string): boolean {
  return QUANTITY.test(text.replace(REFERENCE_NUMBER, ' '));
}

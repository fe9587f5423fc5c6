/** One secret-looking value found in a text: where it is and what it is, never the value itself. */
export interface Finding {
  start: number;
  end: number;
  /** what to say instead of the value: `[hidden: <kind>]` */
  kind: string;
  /** a recognizable credential (provider token, private key, URL password...), refused in writes */
  credential: boolean;
  /** which kind wins when findings overlap: the more specific detector names the span */
  rank: number;
}

/** Ranks: provider formats name a span before generic rules do. */
export const RANK = { setting: 1, extraSecret: 2, urlPassword: 3, format: 4 } as const;

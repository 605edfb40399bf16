/**
 * How the processes sharing a budget reach each other: each keeps its budgets in memory and
 * tells the others what it spent, so a budget holds across them, overshot at most by what the
 * others spent since their last message.
 */
export interface Peers<Message> {
  publish(message: Message): void;
  subscribe(receive: (message: Message) => void): void;
  close?(): Promise<void>;
}

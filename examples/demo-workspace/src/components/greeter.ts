export type Greeting = {
  text: string;
  at: Date;
};

export class Greeter {
  constructor(private readonly name: string) {}

  greet(who: string): string {
    const greeting: Greeting = { text: `Hello ${who}, from ${this.name}`, at: new Date() };
    return greeting.text;
  }

  farewell(who: string): string {
    return `Goodbye ${who}`;
  }
}

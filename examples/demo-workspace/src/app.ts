import { Greeter } from "./components/greeter";

export interface AppConfig {
  name: string;
  port: number;
  verbose?: boolean;
}

export class App {
  private readonly greeter: Greeter;

  constructor(private readonly config: AppConfig) {
    this.greeter = new Greeter(config.name);
  }

  start(): string {
    const message = this.greeter.greet("world");
    if (this.config.verbose) {
      console.log(`[${this.config.name}] ${message}`);
    }
    return message;
  }
}

export function createApp(config: AppConfig): App {
  const app = new App(config);
  app.start();
  return app;
}

/** Interned values (a facet's values, a hit's lists of types), so a slot holds a small number. */
export class Codes {
  private readonly byValue = new Map<string, number>();
  readonly values: string[] = [];
  code(value: string): number {
    let code = this.byValue.get(value);
    if (code === undefined) {
      code = this.values.length;
      this.values.push(value);
      this.byValue.set(value, code);
    }
    return code;
  }
  find(value: string): number | undefined {
    return this.byValue.get(value);
  }
}

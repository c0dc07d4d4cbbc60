/** The part of ejs the sandbox uses (ejs ships no type declarations). */
declare module 'ejs' {
  interface TemplateOptions {
    compileDebug?: boolean;
    strict?: boolean;
    _with?: boolean;
    localsName?: string;
    async?: boolean;
  }
  class Template {
    constructor(text: string, options?: TemplateOptions);
    /** The function body generated from the template (after `generateSource`). */
    source: string;
    generateSource(): void;
  }
  const ejs: { Template: typeof Template };
  export default ejs;
}

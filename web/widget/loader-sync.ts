/** `embed-v2.min.js`: defines the global the FastComments snippets and framework wrappers call. */
import { FastCommentsUI } from './loader.js';

(window as unknown as { FastCommentsUI: typeof FastCommentsUI }).FastCommentsUI = FastCommentsUI;

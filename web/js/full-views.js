// The views of the full module's answers (the solver's options and its prices editor, the log
// reader's figures, a launch command's check): their own bundle in the staged site, fetched with the full module by
// loadFullViews (page.js), not with the page's first answer.
export { pricesView, solveView } from './views/solve.js';
export { explainView } from './views/explain.js';
export { checkView } from './views/check.js';

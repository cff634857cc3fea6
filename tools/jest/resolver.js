// Jest resolver: a relative import written with the `.js` extension that Node's ESM resolution
// needs (`./signature.js`, as the publishable packages in libs/ write them) resolves to the
// TypeScript source beside it when there is one. Everything else resolves as usual; files inside
// node_modules are never redirected.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

module.exports = (request, options) => {
  if (/^\.\.?\//.test(request) && request.endsWith('.js') && !options.basedir.split(path.sep).includes('node_modules')) {
    const source = path.resolve(options.basedir, `${request.slice(0, -3)}.ts`);
    if (fs.existsSync(source)) return source;
  }
  return options.defaultResolver(request, options);
};

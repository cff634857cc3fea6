export * from './languages';
export * from './stemmer';
export * from './wordnet';
export * from './text-match';
export * from './lexemes';

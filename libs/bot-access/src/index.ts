export * from './bot-access';

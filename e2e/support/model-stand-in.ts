// The model stand-ins live in the testing lib, shared with integration tests (apps/chat's tool-calls test).
export * from '../../libs/testing/src/http/model-stand-in';

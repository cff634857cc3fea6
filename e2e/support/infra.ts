// The private NATS server and port helpers live in the testing lib, shared with integration tests.
export * from '../../libs/testing/src/infra/local-services';

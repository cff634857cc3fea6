// The DTO pipe lives in libs/edge (the console uses it too).
export { DtoPipe, RequestPart, dto } from '@sa/edge';

import { IsUUID } from 'class-validator';
import { BotParams } from '@sa/contracts';

/* The path parameters of a bot's channel connection (the bodies and views are the contract's, libs/contracts/src/channels.ts). */

export class ChannelConnectionParams extends BotParams {
  @IsUUID('all') connectionId: string;
}

import { Controller } from '@nestjs/common';
import {
  CallerContext,
  UpdateWidgetSettingsRequest,
  VerifyWidgetIdentityReply,
  VerifyWidgetIdentityRequest,
  WidgetSecretView,
  WidgetSettingsRequest,
  WidgetSettingsView,
} from '@sa/contracts';
import { RpcHandler } from '@sa/messaging';
import { WidgetSettingsService } from './widget-settings.service';

/** bots.widget.*: a bot's widget settings (the console, the admin CLI) and identity checks (the gateway). */
@Controller()
export class WidgetSettingsHandler {
  constructor(private readonly settings: WidgetSettingsService) {}

  @RpcHandler('bots.widget.get')
  get(req: WidgetSettingsRequest, ctx: CallerContext): Promise<WidgetSettingsView> {
    return this.settings.get(ctx, req.botId);
  }

  @RpcHandler('bots.widget.update')
  update(req: UpdateWidgetSettingsRequest, ctx: CallerContext): Promise<WidgetSettingsView> {
    return this.settings.update(ctx, req);
  }

  @RpcHandler('bots.widget.secret.rotate')
  rotate(req: WidgetSettingsRequest, ctx: CallerContext): Promise<WidgetSecretView> {
    return this.settings.rotateSecret(ctx, req.botId);
  }

  @RpcHandler('bots.widget.identity.verify')
  verify(req: VerifyWidgetIdentityRequest, ctx: CallerContext): Promise<VerifyWidgetIdentityReply> {
    return this.settings.verify(ctx, req);
  }
}

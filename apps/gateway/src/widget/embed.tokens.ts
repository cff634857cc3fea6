/** The built widget script (WidgetAsset), or null when the gateway has none. */
export const WIDGET_ASSET = Symbol('WIDGET_ASSET');

export { loadWidgetAsset, widgetAssetFile, type WidgetAsset } from './widget-asset';

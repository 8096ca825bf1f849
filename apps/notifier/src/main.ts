import './tracing';
import { runService } from '@gw/service-kit';
import { loadConfig } from './config';
import { startNotifierApp } from './notifier-app';

runService('notifier', loadConfig(process.env), startNotifierApp);

import './tracing';
import { runService } from '@gw/service-kit';
import { loadConfig } from './config';
import { startBillingApp } from './billing-app';

runService('billing-service', loadConfig(process.env), startBillingApp);

import './tracing';
import { runService } from '@gw/service-kit';
import { loadConfig } from './config';
import { startProviderSimApp } from './provider-sim-app';

runService('provider-sim', loadConfig(process.env), startProviderSimApp);

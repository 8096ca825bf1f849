import './tracing';
import { runService } from '@gw/service-kit';
import { loadConfig } from './config';
import { startAuthApp } from './auth-app';

runService('auth-service', loadConfig(process.env), startAuthApp);

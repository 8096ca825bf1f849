export { microToLyd, parseLyd } from './lyd';

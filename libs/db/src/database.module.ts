import { DynamicModule, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { DbOptions, dataSourceOptions } from './data-source';

/** The app's TypeORM connection (one pool per process), built from the app's parsed config. */
@Module({})
export class DatabaseModule {
  static forRoot(opts: DbOptions): DynamicModule {
    return {
      module: DatabaseModule,
      imports: [TypeOrmModule.forRoot({ ...dataSourceOptions(opts), retryAttempts: 10, retryDelay: 1000 })],
    };
  }
}

export interface PageRequest {
  limit: number;
  skip: number;
}

export interface Page<T> {
  items: T[];
  total: number;
  limit: number;
  skip: number;
  has_next: boolean;
}

export function toPage<T>(items: T[], total: number, request: PageRequest): Page<T> {
  return { items, total, limit: request.limit, skip: request.skip, has_next: request.skip + items.length < total };
}

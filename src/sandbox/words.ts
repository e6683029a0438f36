// Word lists the sandbox data set is generated from. Order matters: the generator indexes into them.

export const SOURCES = [
  'Google Maps',
  'Yandex Maps',
  '2GIS',
  'Tripadvisor',
  'Yelp',
  'Otzovik',
  'Zoon',
  'Flamp',
] as const;

export const LATIN_CITIES = [
  'Berlin', 'Austin', 'London', 'Paris', 'Madrid', 'Rome', 'Vienna', 'Prague', 'Warsaw',
  'Amsterdam', 'Lisbon', 'Dublin', 'Oslo', 'Stockholm', 'Helsinki', 'Copenhagen', 'Boston',
  'Seattle', 'Denver', 'Chicago', 'Toronto', 'Sydney', 'San Francisco', 'New York', 'Munich',
] as const;

export const CYRILLIC_CITIES = [
  'Москва', 'Санкт-Петербург', 'Казань', 'Новосибирск', 'Екатеринбург', 'Нижний Новгород',
  'Самара', 'Омск', 'Ростов-на-Дону', 'Уфа', 'Красноярск', 'Пермь', 'Воронеж', 'Волгоград',
  'Краснодар', 'Саратов', 'Тюмень', 'Тольятти', 'Ижевск', 'Барнаул', 'Иркутск', 'Ярославль',
  'Владивосток', 'Томск', 'Калининград',
] as const;

/** A category and the words a company of that category carries in its name. */
export interface CategoryWords {
  readonly name: string;
  readonly brands: readonly string[];
}

// Latin names read "<adjective> <noun> <brand>", so brands come last.
export const LATIN_CATEGORIES: readonly CategoryWords[] = [
  { name: 'Coffee shop', brands: ['Coffee', 'Roasters', 'Café'] },
  { name: 'Bakery', brands: ['Bakery', 'Bakehouse'] },
  { name: 'Dentist', brands: ['Dental', 'Dentistry'] },
  { name: 'Hotel', brands: ['Hotel', 'Inn'] },
  { name: 'Pizzeria', brands: ['Pizza', 'Pizzeria'] },
  { name: 'Barber shop', brands: ['Barbers', 'Barbershop'] },
  { name: 'Gym', brands: ['Gym', 'Fitness'] },
  { name: 'Florist', brands: ['Flowers', 'Florist'] },
  { name: 'Pharmacy', brands: ['Pharmacy', 'Drugstore'] },
  { name: 'Bookstore', brands: ['Books', 'Bookshop'] },
  { name: 'Car repair', brands: ['Auto', 'Garage', 'Motors'] },
  { name: 'Veterinarian', brands: ['Vet Clinic', 'Animal Hospital'] },
  { name: 'Yoga studio', brands: ['Yoga'] },
  { name: 'Sushi bar', brands: ['Sushi'] },
  { name: 'Burger restaurant', brands: ['Burgers', 'Grill'] },
  { name: 'Tattoo studio', brands: ['Tattoo', 'Ink'] },
  { name: 'Optician', brands: ['Optics', 'Eyewear'] },
  { name: 'Brewery', brands: ['Brewing', 'Taproom'] },
  { name: 'Electronics store', brands: ['Electronics'] },
  { name: 'Grocery store', brands: ['Market', 'Grocery'] },
  { name: 'Design studio', brands: ['Design', 'Studio'] },
];

// Cyrillic names read "<brand> <noun>", as in "Кофейня Ромашка".
export const CYRILLIC_CATEGORIES: readonly CategoryWords[] = [
  { name: 'Кофейня', brands: ['Кофейня', 'Кофе-бар'] },
  { name: 'Пекарня', brands: ['Пекарня', 'Хлебная лавка'] },
  { name: 'Стоматология', brands: ['Стоматология', 'Дентал-клиника'] },
  { name: 'Гостиница', brands: ['Гостиница', 'Отель'] },
  { name: 'Пиццерия', brands: ['Пиццерия'] },
  { name: 'Парикмахерская', brands: ['Парикмахерская', 'Барбершоп'] },
  { name: 'Фитнес-клуб', brands: ['Фитнес-клуб', 'Спортзал'] },
  { name: 'Цветочный магазин', brands: ['Цветы', 'Флористика'] },
  { name: 'Аптека', brands: ['Аптека'] },
  { name: 'Книжный магазин', brands: ['Книги', 'Книжная лавка'] },
  { name: 'Автосервис', brands: ['Автосервис', 'Автомастерская'] },
  { name: 'Ветклиника', brands: ['Ветклиника'] },
  { name: 'Ресторан', brands: ['Ресторан', 'Трактир'] },
  { name: 'Кондитерская', brands: ['Кондитерская'] },
  { name: 'Химчистка', brands: ['Химчистка'] },
  { name: 'Салон красоты', brands: ['Салон', 'Студия красоты'] },
  { name: 'Шиномонтаж', brands: ['Шиномонтаж'] },
  { name: 'Столовая', brands: ['Столовая'] },
  { name: 'Суши-бар', brands: ['Суши-бар'] },
];

export const LATIN_ADJECTIVES = [
  'Blue', 'Golden', 'Silver', 'Green', 'Red', 'Little', 'Old', 'Happy', 'Sunny', 'Quiet',
  'Urban', 'Royal', 'Lucky', 'Bright', 'Wild', 'Crimson', 'Amber', 'Copper', 'Velvet', 'Rustic',
  'Modern', 'Northern', 'Southern', 'Eastern', 'Western', 'Grand', 'Cozy', 'Fresh', 'Honest',
  'Brave', 'Gentle', 'Swift', 'Humble', 'Noble', 'Clever', 'Merry', 'Misty', 'Iron', 'Maple', 'Cedar',
] as const;

export const LATIN_NOUNS = [
  'Harbor', 'Bottle', 'Oak', 'River', 'Fox', 'Lantern', 'Anchor', 'Bridge', 'Garden', 'Meadow',
  'Stone', 'Willow', 'Pine', 'Owl', 'Bear', 'Falcon', 'Compass', 'Orchard', 'Lighthouse', 'Sparrow',
  'Acorn', 'Summit', 'Valley', 'Canyon', 'Hill', 'Brook', 'Crown', 'Feather', 'Arrow', 'Pepper',
  'Clover', 'Thistle', 'Juniper', 'Raven', 'Wolf', 'Lotus', 'Ember', 'Tide', 'Pebble', 'Atlas',
] as const;

export const CYRILLIC_NOUNS = [
  'Ромашка', 'Берёзка', 'Уют', 'Восход', 'Рассвет', 'Лакомка', 'Сказка', 'Радуга', 'Визит', 'Маяк',
  'Янтарь', 'Жемчужина', 'Калинка', 'Рябинка', 'Сирень', 'Фиалка', 'Незабудка', 'Василёк',
  'Колосок', 'Каравай', 'Пышка', 'Булочка', 'Медведь', 'Лиса', 'Сова', 'Ласточка', 'Чайка', 'Сокол',
  'Орион', 'Вега', 'Алмаз', 'Изумруд', 'Гранат', 'Малахит', 'Заря', 'Волна', 'Парус', 'Якорь',
  'Причал', 'Пристань', 'Мечта', 'Улыбка', 'Надежда', 'Гармония', 'Бриз', 'Ветерок', 'Тайга',
  'Кедр', 'Сосна', 'Дубрава', 'Роща', 'Поляна', 'Луч', 'Искра', 'Огонёк', 'Звезда', 'Комета',
  'Планета', 'Глобус', 'Арбат', 'Невский', 'Кремль', 'Волга', 'Нева', 'Ока', 'Кама', 'Урал',
  'Байкал', 'Самовар', 'Пряник', 'Баранка', 'Матрёшка', 'Тройка', 'Терем', 'Светлица', 'Горница',
  'Добрыня', 'Алёнка', 'Белочка', 'Снегирь', 'Ёжик',
] as const;

/** Companies the README and the tests name; they always exist, with these ids first. */
export const FIXED_COMPANIES = [
  { name: 'Кофейня Ромашка', city: 'Москва', category: 'Кофейня' },
  { name: 'Blue Bottle Coffee', city: 'San Francisco', category: 'Coffee shop' },
  { name: 'AT&T #5', city: 'New York', category: 'Electronics store' },
  { name: '100% Natural', city: 'Austin', category: 'Grocery store' },
  { name: 'a/b?c=d Studio', city: 'Berlin', category: 'Design studio' },
  { name: 'Smile 😀 Dental', city: 'London', category: 'Dentist' },
  { name: 'Ёлка', city: 'Санкт-Петербург', category: 'Ресторан' },
] as const;
